//! UI strings of the public card page in the 19 card languages (spec 2.5).

use crate::domain::validation::Rule;

/// One language's strings, indexed by [`Text`].
pub struct Strings(&'static [&'static str; 23]);

#[derive(Clone, Copy)]
pub enum Text {
    SaveContact,
    Email,
    Call,
    Website,
    Book,
    Video,
    Directions,
    GetInTouch,
    Name,
    Phone,
    Message,
    Send,
    Thanks,
    NotFound,
    MadeWith,
    FixErrors,
    TooMany,
    Unavailable,
    Consent,
    PrivacyPolicy,
    ConsentRequired,
    ShowQr,
    QrLabel,
}

impl Strings {
    pub fn get(&self, t: Text) -> &'static str {
        self.0[t as usize]
    }
}

const EN: [&str; 23] = [
    "Save contact",
    "Email",
    "Call",
    "Website",
    "Book a meeting",
    "Watch video",
    "Directions",
    "Get in touch",
    "Name",
    "Phone",
    "Message",
    "Send",
    "Thank you! Your message has been sent.",
    "This card is not available.",
    "Made with Digital Business Card",
    "Please correct the errors below.",
    "You have already sent several messages. Please try again later.",
    "Something went wrong. Please try again later.",
    "I agree that my details are stored to answer my message.",
    "Privacy policy",
    "Please agree to the storage of your details to send your message.",
    "Show QR code",
    "QR code of this card",
];
const DE: [&str; 23] = [
    "Kontakt speichern",
    "E-Mail",
    "Anrufen",
    "Webseite",
    "Termin buchen",
    "Video ansehen",
    "Route",
    "Kontakt aufnehmen",
    "Name",
    "Telefon",
    "Nachricht",
    "Senden",
    "Vielen Dank! Ihre Nachricht wurde gesendet.",
    "Diese Karte ist nicht verfügbar.",
    "Erstellt mit Digital Business Card",
    "Bitte korrigieren Sie die Fehler unten.",
    "Sie haben bereits mehrere Nachrichten gesendet. Bitte versuchen Sie es später erneut.",
    "Etwas ist schiefgelaufen. Bitte versuchen Sie es später erneut.",
    "Ich bin damit einverstanden, dass meine Angaben zur Beantwortung meiner Nachricht gespeichert werden.",
    "Datenschutzerklärung",
    "Bitte stimmen Sie der Speicherung Ihrer Angaben zu, um Ihre Nachricht zu senden.",
    "QR-Code anzeigen",
    "QR-Code dieser Karte",
];
const BG: [&str; 23] = [
    "Запази контакт",
    "Имейл",
    "Обаждане",
    "Уебсайт",
    "Запази среща",
    "Гледай видео",
    "Упътване",
    "Свържете се",
    "Име",
    "Телефон",
    "Съобщение",
    "Изпрати",
    "Благодарим! Съобщението ви е изпратено.",
    "Тази визитка не е налична.",
    "Създадено с Digital Business Card",
    "Моля, поправете грешките по-долу.",
    "Вече сте изпратили няколко съобщения. Моля, опитайте отново по-късно.",
    "Нещо се обърка. Моля, опитайте отново по-късно.",
    "Съгласявам се данните ми да бъдат съхранявани с цел отговор на съобщението ми.",
    "Политика за поверителност",
    "Моля, дайте съгласие за съхраняването на данните ви, за да изпратите съобщението си.",
    "Покажи QR код",
    "QR код на тази визитка",
];
const CS: [&str; 23] = [
    "Uložit kontakt",
    "E-mail",
    "Zavolat",
    "Web",
    "Rezervovat schůzku",
    "Přehrát video",
    "Navigovat",
    "Napište mi",
    "Jméno",
    "Telefon",
    "Zpráva",
    "Odeslat",
    "Děkujeme! Vaše zpráva byla odeslána.",
    "Tato vizitka není dostupná.",
    "Vytvořeno s Digital Business Card",
    "Opravte prosím chyby níže.",
    "Již jste odeslali několik zpráv. Zkuste to prosím později.",
    "Něco se pokazilo. Zkuste to prosím později.",
    "Souhlasím s uložením svých údajů za účelem odpovědi na mou zprávu.",
    "Zásady ochrany osobních údajů",
    "Pro odeslání zprávy prosím souhlaste s uložením svých údajů.",
    "Zobrazit QR kód",
    "QR kód této vizitky",
];
const DA: [&str; 23] = [
    "Gem kontakt",
    "E-mail",
    "Ring",
    "Hjemmeside",
    "Book et møde",
    "Se video",
    "Rutevejledning",
    "Kontakt mig",
    "Navn",
    "Telefon",
    "Besked",
    "Send",
    "Tak! Din besked er sendt.",
    "Dette kort er ikke tilgængeligt.",
    "Lavet med Digital Business Card",
    "Ret venligst fejlene nedenfor.",
    "Du har allerede sendt flere beskeder. Prøv igen senere.",
    "Noget gik galt. Prøv igen senere.",
    "Jeg accepterer, at mine oplysninger gemmes, så min besked kan besvares.",
    "Privatlivspolitik",
    "Du skal acceptere, at dine oplysninger gemmes, for at kunne sende din besked.",
    "Vis QR-kode",
    "QR-kode til dette kort",
];
const EL: [&str; 23] = [
    "Αποθήκευση επαφής",
    "Email",
    "Κλήση",
    "Ιστότοπος",
    "Κλείστε ραντεβού",
    "Δείτε το βίντεο",
    "Οδηγίες",
    "Επικοινωνία",
    "Όνομα",
    "Τηλέφωνο",
    "Μήνυμα",
    "Αποστολή",
    "Ευχαριστούμε! Το μήνυμά σας στάλθηκε.",
    "Αυτή η κάρτα δεν είναι διαθέσιμη.",
    "Δημιουργήθηκε με Digital Business Card",
    "Διορθώστε τα παρακάτω σφάλματα.",
    "Έχετε ήδη στείλει αρκετά μηνύματα. Δοκιμάστε ξανά αργότερα.",
    "Κάτι πήγε στραβά. Δοκιμάστε ξανά αργότερα.",
    "Συμφωνώ με την αποθήκευση των στοιχείων μου για την απάντηση στο μήνυμά μου.",
    "Πολιτική απορρήτου",
    "Για να στείλετε το μήνυμά σας, συμφωνήστε με την αποθήκευση των στοιχείων σας.",
    "Εμφάνιση κωδικού QR",
    "Κωδικός QR αυτής της κάρτας",
];
const ES: [&str; 23] = [
    "Guardar contacto",
    "Correo",
    "Llamar",
    "Sitio web",
    "Reservar una cita",
    "Ver vídeo",
    "Cómo llegar",
    "Contacto",
    "Nombre",
    "Teléfono",
    "Mensaje",
    "Enviar",
    "¡Gracias! Tu mensaje ha sido enviado.",
    "Esta tarjeta no está disponible.",
    "Hecho con Digital Business Card",
    "Corrige los errores a continuación.",
    "Ya has enviado varios mensajes. Inténtalo de nuevo más tarde.",
    "Algo ha salido mal. Inténtalo de nuevo más tarde.",
    "Acepto que mis datos se guarden para responder a mi mensaje.",
    "Política de privacidad",
    "Acepta el almacenamiento de tus datos para enviar tu mensaje.",
    "Mostrar código QR",
    "Código QR de esta tarjeta",
];
const FR: [&str; 23] = [
    "Enregistrer le contact",
    "E-mail",
    "Appeler",
    "Site web",
    "Prendre rendez-vous",
    "Voir la vidéo",
    "Itinéraire",
    "Me contacter",
    "Nom",
    "Téléphone",
    "Message",
    "Envoyer",
    "Merci ! Votre message a été envoyé.",
    "Cette carte n'est pas disponible.",
    "Créé avec Digital Business Card",
    "Veuillez corriger les erreurs ci-dessous.",
    "Vous avez déjà envoyé plusieurs messages. Veuillez réessayer plus tard.",
    "Une erreur s'est produite. Veuillez réessayer plus tard.",
    "J'accepte que mes données soient enregistrées pour répondre à mon message.",
    "Politique de confidentialité",
    "Veuillez accepter l'enregistrement de vos données pour envoyer votre message.",
    "Afficher le code QR",
    "Code QR de cette carte",
];
const HR: [&str; 23] = [
    "Spremi kontakt",
    "E-pošta",
    "Nazovi",
    "Web stranica",
    "Rezerviraj sastanak",
    "Pogledaj video",
    "Upute",
    "Javite se",
    "Ime",
    "Telefon",
    "Poruka",
    "Pošalji",
    "Hvala! Vaša poruka je poslana.",
    "Ova posjetnica nije dostupna.",
    "Izrađeno s Digital Business Card",
    "Molimo ispravite pogreške u nastavku.",
    "Već ste poslali nekoliko poruka. Molimo pokušajte ponovno kasnije.",
    "Nešto je pošlo po zlu. Molimo pokušajte ponovno kasnije.",
    "Slažem se s pohranom svojih podataka radi odgovora na moju poruku.",
    "Pravila o privatnosti",
    "Molimo prihvatite pohranu svojih podataka kako biste poslali poruku.",
    "Prikaži QR kod",
    "QR kod ove posjetnice",
];
const HU: [&str; 23] = [
    "Névjegy mentése",
    "E-mail",
    "Hívás",
    "Weboldal",
    "Időpontfoglalás",
    "Videó megtekintése",
    "Útvonal",
    "Kapcsolatfelvétel",
    "Név",
    "Telefon",
    "Üzenet",
    "Küldés",
    "Köszönjük! Üzenetét elküldtük.",
    "Ez a névjegykártya nem érhető el.",
    "Készült: Digital Business Card",
    "Kérjük, javítsa az alábbi hibákat.",
    "Már több üzenetet is elküldött. Kérjük, próbálja újra később.",
    "Hiba történt. Kérjük, próbálja újra később.",
    "Hozzájárulok, hogy adataimat üzenetem megválaszolása céljából tárolják.",
    "Adatvédelmi tájékoztató",
    "Kérjük, járuljon hozzá adatai tárolásához az üzenet elküldéséhez.",
    "QR-kód megjelenítése",
    "A névjegy QR-kódja",
];
const IT: [&str; 23] = [
    "Salva contatto",
    "Email",
    "Chiama",
    "Sito web",
    "Prenota un incontro",
    "Guarda il video",
    "Indicazioni",
    "Contattami",
    "Nome",
    "Telefono",
    "Messaggio",
    "Invia",
    "Grazie! Il tuo messaggio è stato inviato.",
    "Questo biglietto non è disponibile.",
    "Creato con Digital Business Card",
    "Correggi gli errori qui sotto.",
    "Hai già inviato diversi messaggi. Riprova più tardi.",
    "Si è verificato un errore. Riprova più tardi.",
    "Acconsento alla conservazione dei miei dati per rispondere al mio messaggio.",
    "Informativa sulla privacy",
    "Per inviare il messaggio, acconsenti alla conservazione dei tuoi dati.",
    "Mostra codice QR",
    "Codice QR di questo biglietto",
];
const NL: [&str; 23] = [
    "Contact opslaan",
    "E-mail",
    "Bellen",
    "Website",
    "Afspraak maken",
    "Video bekijken",
    "Route",
    "Neem contact op",
    "Naam",
    "Telefoon",
    "Bericht",
    "Versturen",
    "Bedankt! Je bericht is verzonden.",
    "Deze kaart is niet beschikbaar.",
    "Gemaakt met Digital Business Card",
    "Corrigeer de fouten hieronder.",
    "Je hebt al meerdere berichten verstuurd. Probeer het later opnieuw.",
    "Er is iets misgegaan. Probeer het later opnieuw.",
    "Ik ga ermee akkoord dat mijn gegevens worden opgeslagen om mijn bericht te beantwoorden.",
    "Privacybeleid",
    "Ga akkoord met het opslaan van je gegevens om je bericht te versturen.",
    "QR-code tonen",
    "QR-code van dit visitekaartje",
];
const PL: [&str; 23] = [
    "Zapisz kontakt",
    "E-mail",
    "Zadzwoń",
    "Strona WWW",
    "Umów spotkanie",
    "Obejrzyj wideo",
    "Dojazd",
    "Skontaktuj się",
    "Imię i nazwisko",
    "Telefon",
    "Wiadomość",
    "Wyślij",
    "Dziękujemy! Twoja wiadomość została wysłana.",
    "Ta wizytówka jest niedostępna.",
    "Stworzone w Digital Business Card",
    "Popraw poniższe błędy.",
    "Wysłano już kilka wiadomości. Spróbuj ponownie później.",
    "Coś poszło nie tak. Spróbuj ponownie później.",
    "Wyrażam zgodę na przechowywanie moich danych w celu odpowiedzi na moją wiadomość.",
    "Polityka prywatności",
    "Aby wysłać wiadomość, wyraź zgodę na przechowywanie swoich danych.",
    "Pokaż kod QR",
    "Kod QR tej wizytówki",
];
const PT: [&str; 23] = [
    "Adicionar aos contactos",
    "E-mail",
    "Ligar",
    "Site",
    "Marcar reunião",
    "Ver vídeo",
    "Direções",
    "Fale comigo",
    "Nome",
    "Telefone",
    "Mensagem",
    "Enviar",
    "Obrigado! A sua mensagem foi enviada.",
    "Este cartão não está disponível.",
    "Criado com Digital Business Card",
    "Corrija os erros abaixo.",
    "Já enviou várias mensagens. Tente novamente mais tarde.",
    "Ocorreu um erro. Tente novamente mais tarde.",
    "Aceito que os meus dados sejam guardados para responder à minha mensagem.",
    "Política de privacidade",
    "Aceite o armazenamento dos seus dados para enviar a sua mensagem.",
    "Mostrar o código QR",
    "Código QR deste cartão",
];
const RO: [&str; 23] = [
    "Salvează contactul",
    "E-mail",
    "Sună",
    "Site web",
    "Programează o întâlnire",
    "Vezi videoclipul",
    "Indicații",
    "Contactează-mă",
    "Nume",
    "Telefon",
    "Mesaj",
    "Trimite",
    "Mulțumim! Mesajul a fost trimis.",
    "Această carte de vizită nu este disponibilă.",
    "Creat cu Digital Business Card",
    "Corectează erorile de mai jos.",
    "Ai trimis deja mai multe mesaje. Încearcă din nou mai târziu.",
    "A apărut o eroare. Încearcă din nou mai târziu.",
    "Sunt de acord ca datele mele să fie stocate pentru a primi răspuns la mesajul meu.",
    "Politica de confidențialitate",
    "Pentru a trimite mesajul, te rugăm să fii de acord cu stocarea datelor tale.",
    "Afișează codul QR",
    "Codul QR al acestei cărți de vizită",
];
const SK: [&str; 23] = [
    "Uložiť kontakt",
    "E-mail",
    "Zavolať",
    "Web",
    "Rezervovať stretnutie",
    "Pozrieť video",
    "Navigovať",
    "Napíšte mi",
    "Meno",
    "Telefón",
    "Správa",
    "Odoslať",
    "Ďakujeme! Vaša správa bola odoslaná.",
    "Táto vizitka nie je dostupná.",
    "Vytvorené s Digital Business Card",
    "Opravte prosím chyby nižšie.",
    "Už ste odoslali niekoľko správ. Skúste to prosím neskôr.",
    "Niečo sa pokazilo. Skúste to prosím neskôr.",
    "Súhlasím s uložením svojich údajov na účely odpovede na moju správu.",
    "Zásady ochrany osobných údajov",
    "Na odoslanie správy prosím súhlaste s uložením svojich údajov.",
    "Zobraziť QR kód",
    "QR kód tejto vizitky",
];
const SL: [&str; 23] = [
    "Shrani stik",
    "E-pošta",
    "Pokliči",
    "Spletna stran",
    "Rezerviraj sestanek",
    "Oglej si video",
    "Navodila za pot",
    "Pišite mi",
    "Ime",
    "Telefon",
    "Sporočilo",
    "Pošlji",
    "Hvala! Vaše sporočilo je bilo poslano.",
    "Ta vizitka ni na voljo.",
    "Ustvarjeno z Digital Business Card",
    "Popravite spodnje napake.",
    "Poslali ste že več sporočil. Poskusite znova pozneje.",
    "Prišlo je do napake. Poskusite znova pozneje.",
    "Strinjam se s shranjevanjem svojih podatkov za odgovor na moje sporočilo.",
    "Politika zasebnosti",
    "Če želite poslati sporočilo, se strinjajte s shranjevanjem svojih podatkov.",
    "Prikaži kodo QR",
    "Koda QR te vizitke",
];
const SV: [&str; 23] = [
    "Spara kontakt",
    "E-post",
    "Ring",
    "Webbplats",
    "Boka ett möte",
    "Se video",
    "Vägbeskrivning",
    "Kontakta mig",
    "Namn",
    "Telefon",
    "Meddelande",
    "Skicka",
    "Tack! Ditt meddelande har skickats.",
    "Det här kortet är inte tillgängligt.",
    "Skapad med Digital Business Card",
    "Rätta felen nedan.",
    "Du har redan skickat flera meddelanden. Försök igen senare.",
    "Något gick fel. Försök igen senare.",
    "Jag godkänner att mina uppgifter sparas så att mitt meddelande kan besvaras.",
    "Integritetspolicy",
    "Godkänn att dina uppgifter sparas för att skicka ditt meddelande.",
    "Visa QR-kod",
    "QR-kod för detta kort",
];
const UK: [&str; 23] = [
    "Зберегти контакт",
    "Email",
    "Зателефонувати",
    "Вебсайт",
    "Записатися на зустріч",
    "Переглянути відео",
    "Маршрут",
    "Зв'язатися",
    "Ім'я",
    "Телефон",
    "Повідомлення",
    "Надіслати",
    "Дякуємо! Ваше повідомлення надіслано.",
    "Ця візитка недоступна.",
    "Створено з Digital Business Card",
    "Виправте помилки нижче.",
    "Ви вже надіслали кілька повідомлень. Спробуйте пізніше.",
    "Щось пішло не так. Спробуйте пізніше.",
    "Я погоджуюся на зберігання моїх даних для відповіді на моє повідомлення.",
    "Політика конфіденційності",
    "Щоб надіслати повідомлення, погодьтеся на зберігання своїх даних.",
    "Показати QR-код",
    "QR-код цієї візитки",
];

/// Lead-form validation messages, one template per [`form_error`] rule in the order
/// `Required, String, MaxChars, Email, Format`; `{label}` is the field's label as the form
/// shows it, `{n}` the character limit. Labels stay verbatim (quoted where the grammar
/// around them would otherwise need an article or a case ending).
type FormErrors = [&'static str; 5];

const EN_FORM: FormErrors = [
    "{label} is required.",
    "{label} must be text.",
    "{label} must not be longer than {n} characters.",
    "{label} must be a valid email address.",
    "{label} has an invalid format.",
];
const DE_FORM: FormErrors = [
    "Bitte füllen Sie das Feld „{label}“ aus.",
    "Das Feld „{label}“ muss Text enthalten.",
    "Das Feld „{label}“ darf höchstens {n} Zeichen lang sein.",
    "Bitte geben Sie im Feld „{label}“ eine gültige E-Mail-Adresse ein.",
    "Das Feld „{label}“ hat ein ungültiges Format.",
];
const BG_FORM: FormErrors = [
    "Полето „{label}“ е задължително.",
    "Полето „{label}“ трябва да съдържа текст.",
    "Максималният брой знаци в полето „{label}“ е {n}.",
    "Моля, въведете валиден имейл адрес в полето „{label}“.",
    "Форматът на полето „{label}“ е невалиден.",
];
const CS_FORM: FormErrors = [
    "Pole „{label}“ je povinné.",
    "Pole „{label}“ musí obsahovat text.",
    "Maximální počet znaků v poli „{label}“ je {n}.",
    "Do pole „{label}“ zadejte prosím platnou e-mailovou adresu.",
    "Pole „{label}“ má neplatný formát.",
];
const DA_FORM: FormErrors = [
    "Feltet »{label}« skal udfyldes.",
    "Feltet »{label}« skal indeholde tekst.",
    "Feltet »{label}« må højst indeholde {n} tegn.",
    "Feltet »{label}« skal indeholde en gyldig e-mailadresse.",
    "Feltet »{label}« har et ugyldigt format.",
];
const EL_FORM: FormErrors = [
    "Το πεδίο «{label}» είναι υποχρεωτικό.",
    "Το πεδίο «{label}» πρέπει να περιέχει κείμενο.",
    "Το πεδίο «{label}» δεν μπορεί να υπερβαίνει τους {n} χαρακτήρες.",
    "Το πεδίο «{label}» πρέπει να περιέχει έγκυρη διεύθυνση email.",
    "Το πεδίο «{label}» δεν έχει έγκυρη μορφή.",
];
const ES_FORM: FormErrors = [
    "El campo «{label}» es obligatorio.",
    "El campo «{label}» debe contener texto.",
    "El campo «{label}» no puede superar los {n} caracteres.",
    "El campo «{label}» debe contener una dirección de correo electrónico válida.",
    "El campo «{label}» tiene un formato no válido.",
];
const FR_FORM: FormErrors = [
    "Le champ « {label} » est obligatoire.",
    "Le champ « {label} » doit contenir du texte.",
    "Le champ « {label} » ne doit pas dépasser {n} caractères.",
    "Le champ « {label} » doit contenir une adresse e-mail valide.",
    "Le format du champ « {label} » n'est pas valide.",
];
const HR_FORM: FormErrors = [
    "Polje „{label}” je obavezno.",
    "Polje „{label}” mora sadržavati tekst.",
    "Najveći dopušteni broj znakova u polju „{label}” je {n}.",
    "Polje „{label}” mora sadržavati valjanu adresu e-pošte.",
    "Polje „{label}” nije u ispravnom formatu.",
];
const HU_FORM: FormErrors = [
    "{label}: kötelező mező.",
    "{label}: csak szöveg adható meg.",
    "{label}: legfeljebb {n} karakter adható meg.",
    "{label}: kérjük, érvényes e-mail-címet adjon meg.",
    "{label}: érvénytelen formátum.",
];
const IT_FORM: FormErrors = [
    "Il campo «{label}» è obbligatorio.",
    "Il campo «{label}» deve contenere del testo.",
    "Il campo «{label}» non può superare i {n} caratteri.",
    "Il campo «{label}» deve contenere un indirizzo email valido.",
    "Il campo «{label}» ha un formato non valido.",
];
const NL_FORM: FormErrors = [
    "Het veld ‘{label}’ is verplicht.",
    "Het veld ‘{label}’ moet tekst bevatten.",
    "Het veld ‘{label}’ mag maximaal {n} tekens bevatten.",
    "Het veld ‘{label}’ moet een geldig e-mailadres bevatten.",
    "Het veld ‘{label}’ heeft een ongeldig formaat.",
];
const PL_FORM: FormErrors = [
    "Pole „{label}” jest wymagane.",
    "Pole „{label}” musi zawierać tekst.",
    "Maksymalna liczba znaków w polu „{label}” to {n}.",
    "Pole „{label}” musi zawierać prawidłowy adres e-mail.",
    "Pole „{label}” ma nieprawidłowy format.",
];
const PT_FORM: FormErrors = [
    "O campo «{label}» é obrigatório.",
    "O campo «{label}» deve conter texto.",
    "O campo «{label}» não pode ter mais de {n} caracteres.",
    "O campo «{label}» deve conter um endereço de e-mail válido.",
    "O campo «{label}» tem um formato inválido.",
];
const RO_FORM: FormErrors = [
    "Câmpul „{label}” este obligatoriu.",
    "Câmpul „{label}” trebuie să conțină text.",
    "Numărul maxim de caractere pentru câmpul „{label}” este {n}.",
    "Câmpul „{label}” trebuie să conțină o adresă de e-mail validă.",
    "Câmpul „{label}” are un format nevalid.",
];
const SK_FORM: FormErrors = [
    "Pole „{label}“ je povinné.",
    "Pole „{label}“ musí obsahovať text.",
    "Maximálny počet znakov v poli „{label}“ je {n}.",
    "Do poľa „{label}“ zadajte prosím platnú e-mailovú adresu.",
    "Pole „{label}“ má neplatný formát.",
];
const SL_FORM: FormErrors = [
    "Polje »{label}« je obvezno.",
    "Polje »{label}« mora vsebovati besedilo.",
    "Največje dovoljeno število znakov v polju »{label}« je {n}.",
    "Polje »{label}« mora vsebovati veljaven e-poštni naslov.",
    "Polje »{label}« ima neveljavno obliko.",
];
const SV_FORM: FormErrors = [
    "Fältet ”{label}” måste fyllas i.",
    "Fältet ”{label}” måste innehålla text.",
    "Fältet ”{label}” får innehålla högst {n} tecken.",
    "Fältet ”{label}” måste innehålla en giltig e-postadress.",
    "Fältet ”{label}” har ett ogiltigt format.",
];
const UK_FORM: FormErrors = [
    "Поле «{label}» обов'язкове для заповнення.",
    "Поле «{label}» має містити текст.",
    "Максимальна кількість символів у полі «{label}» — {n}.",
    "Поле «{label}» має містити дійсну адресу електронної пошти.",
    "Поле «{label}» має неправильний формат.",
];

/// A language's UI strings and lead-form messages; English for anything else.
fn tables(lang: &str) -> (&'static [&'static str; 23], &'static FormErrors) {
    match lang {
        "de" => (&DE, &DE_FORM),
        "bg" => (&BG, &BG_FORM),
        "cs" => (&CS, &CS_FORM),
        "da" => (&DA, &DA_FORM),
        "el" => (&EL, &EL_FORM),
        "es" => (&ES, &ES_FORM),
        "fr" => (&FR, &FR_FORM),
        "hr" => (&HR, &HR_FORM),
        "hu" => (&HU, &HU_FORM),
        "it" => (&IT, &IT_FORM),
        "nl" => (&NL, &NL_FORM),
        "pl" => (&PL, &PL_FORM),
        "pt" => (&PT, &PT_FORM),
        "ro" => (&RO, &RO_FORM),
        "sk" => (&SK, &SK_FORM),
        "sl" => (&SL, &SL_FORM),
        "sv" => (&SV, &SV_FORM),
        "uk" => (&UK, &UK_FORM),
        _ => (&EN, &EN_FORM),
    }
}

/// Strings for a language code; English for anything else.
pub fn strings(lang: &str) -> Strings {
    Strings(tables(lang).0)
}

/// A lead-form validation message in the page's language, or `None` for a rule with no
/// translation here (the caller then shows the English message).
pub fn form_error(lang: &str, rule: Rule, label: &str) -> Option<String> {
    let index = match rule {
        Rule::Required => 0,
        Rule::String => 1,
        Rule::MaxChars(_) => 2,
        Rule::Email => 3,
        Rule::Format => 4,
        Rule::Url
        | Rule::Boolean
        | Rule::Choice
        | Rule::Integer
        | Rule::Min(_)
        | Rule::Array
        | Rule::Object
        | Rule::MaxItems(_)
        | Rule::Other => return None,
    };
    let template = tables(lang).1[index];
    // `{n}` first, so a label can never be mistaken for a placeholder.
    let template = match rule {
        Rule::MaxChars(n) => template.replace("{n}", &n.to_string()),
        _ => template.to_string(),
    };
    Some(template.replace("{label}", label))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::lang::LANGUAGES;

    #[test]
    fn every_language_has_its_own_save_contact() {
        let mut seen = std::collections::HashSet::new();
        for lang in LANGUAGES {
            let s = strings(lang);
            assert!(!s.get(Text::SaveContact).is_empty());
            seen.insert(s.get(Text::SaveContact));
        }
        assert_eq!(seen.len(), 19);
        assert_eq!(strings("xx").get(Text::Send), "Send");
    }

    /// The label each rule is shown with on the lead form.
    fn label(lang: &str, rule: Rule) -> &'static str {
        let s = strings(lang);
        match rule {
            Rule::Email => s.get(Text::Email),
            Rule::Format => s.get(Text::Phone),
            Rule::MaxChars(_) => s.get(Text::Message),
            _ => s.get(Text::Name),
        }
    }

    const FORM_RULES: [Rule; 5] = [
        Rule::Required,
        Rule::String,
        Rule::MaxChars(255),
        Rule::Email,
        Rule::Format,
    ];

    #[test]
    fn every_language_has_its_own_new_texts_and_form_errors() {
        for text in [
            Text::TooMany,
            Text::Unavailable,
            Text::Consent,
            Text::PrivacyPolicy,
            Text::ConsentRequired,
            Text::ShowQr,
            Text::QrLabel,
        ] {
            let mut seen = std::collections::HashSet::new();
            for lang in LANGUAGES {
                let value = strings(lang).get(text);
                assert!(!value.trim().is_empty(), "{lang}");
                seen.insert(value);
            }
            assert_eq!(seen.len(), 19);
        }
        for rule in FORM_RULES {
            let mut seen = std::collections::HashSet::new();
            for lang in LANGUAGES {
                let label = label(lang, rule);
                let message = form_error(lang, rule, label).expect("translated rule");
                assert!(!message.trim().is_empty(), "{lang} {rule:?}");
                assert!(message.contains(label), "{lang} {rule:?}: {message}");
                assert!(!message.contains('{'), "{lang} {rule:?}: {message}");
                seen.insert(message);
            }
            assert_eq!(seen.len(), 19, "{rule:?}");
        }
    }

    #[test]
    fn english_form_errors() {
        let en = |rule| form_error("en", rule, "Name").unwrap();
        assert_eq!(en(Rule::Required), "Name is required.");
        assert_eq!(en(Rule::String), "Name must be text.");
        assert_eq!(
            en(Rule::MaxChars(255)),
            "Name must not be longer than 255 characters."
        );
        assert_eq!(en(Rule::Email), "Name must be a valid email address.");
        assert_eq!(en(Rule::Format), "Name has an invalid format.");
        assert_eq!(
            strings("en").get(Text::TooMany),
            "You have already sent several messages. Please try again later."
        );
        assert_eq!(
            strings("en").get(Text::Unavailable),
            "Something went wrong. Please try again later."
        );
        assert_eq!(
            strings("en").get(Text::Consent),
            "I agree that my details are stored to answer my message."
        );
        assert_eq!(strings("en").get(Text::PrivacyPolicy), "Privacy policy");
        assert_eq!(
            strings("en").get(Text::ConsentRequired),
            "Please agree to the storage of your details to send your message."
        );
    }

    #[test]
    fn german_required_keeps_the_label() {
        let message = form_error("de", Rule::Required, "E-Mail").unwrap();
        assert!(message.contains("E-Mail"), "{message}");
    }

    #[test]
    fn max_chars_shows_the_limit_everywhere() {
        for lang in LANGUAGES {
            let message = form_error(lang, Rule::MaxChars(255), "X").unwrap();
            assert!(message.contains("255"), "{lang}: {message}");
        }
    }

    #[test]
    fn unknown_language_gives_english_and_other_rules_none() {
        for rule in FORM_RULES {
            assert_eq!(
                form_error("xx", rule, "Email"),
                form_error("en", rule, "Email")
            );
        }
        assert_eq!(
            strings("xx").get(Text::TooMany),
            strings("en").get(Text::TooMany)
        );
        assert_eq!(form_error("de", Rule::Other, "Name"), None);
        assert_eq!(form_error("en", Rule::Other, "Name"), None);
        assert_eq!(form_error("fr", Rule::Url, "Nom"), None);
    }
}
